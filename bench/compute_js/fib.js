// Function calls and integer arithmetic.
function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
function bench() {
  return fib(27);
}
