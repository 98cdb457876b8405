// The C++ guest of tests/cxx.sh, built with runtimes/cxx.sh's kit: each
// scenario returns a number that says what ran (or throws, or spins);
// scenarios from 10 are sjlj.c's, setjmp and longjmp in the same module.
#include <new>
#include <stdexcept>
#include <string>

static int destroyed;      // destructors run during unwinding
static int handler_entered; // scenario 4 reached its handler

struct guard {
  ~guard() { destroyed++; }
};

// n frames, each with a destructor, then a throw from the deepest
static int deep(int n) {
  guard g;
  if (n == 0) throw std::runtime_error("bad path: " + std::to_string(n));
  return deep(n - 1) + 1;
}

extern "C" int sjlj_scenario(int which, int *entered);  // sjlj.c: 10 and up

extern "C" __attribute__((export_name("scenario"))) int scenario(int which) {
  destroyed = 0;
  handler_entered = 0;
  if (which >= 10) return sjlj_scenario(which, &handler_entered);
  switch (which) {
    case 0:  // through six frames with destructors, caught by base class
      try {
        guard g;
        deep(5);
      } catch (const std::exception &e) {
        return std::string(e.what()) == "bad path: 0" ? 100 + destroyed : -1;
      }
      return -2;
    case 1:  // catch (...)
      try {
        throw 42;
      } catch (...) {
        return 201;
      }
    case 2:  // a handler that rethrows to an outer one
      try {
        try {
          deep(3);
        } catch (const std::runtime_error &) {
          destroyed += 10;
          throw;
        }
      } catch (const std::exception &) {
        return 300 + destroyed;
      }
      return -2;
    case 3:  // nothing catches: the call traps
      return deep(2);
    case 4:  // the budget runs out in a handler
      try {
        deep(1);
      } catch (const std::exception &) {
        handler_entered = 1;
        for (volatile unsigned spin = 0;; spin++) {
        }
      }
      return -2;
    case 5:  // libc++ itself throws (Debian's aborts: built without exceptions)
      try {
        std::string s("abc");
        return s.at(10);
      } catch (const std::out_of_range &) {
        return 501;
      }
    case 6:  // operator new past the memory limit
      try {
        char *volatile p = new char[512u << 20];
        return p != nullptr ? -3 : -4;
      } catch (const std::bad_alloc &) {
        return 601;
      }
  }
  return -1;
}

extern "C" __attribute__((export_name("handler_entered"))) int entered(void) { return handler_entered; }
