"""The two constants of CPython's _testcapi that test_sqlite3 imports at module
level (test_dbapi: INT_MAX, ULLONG_MAX); every test_sqlite3 file imports
test_dbapi. The sandbox build leaves the C test modules out
(--disable-test-modules), so without this no sqlite3 test would load.
Values are wasm32's: int is 32 bits, unsigned long long 64."""
INT_MAX = 2**31 - 1
ULLONG_MAX = 2**64 - 1
