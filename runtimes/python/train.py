# The training workload of the profile-guided native build (train.sh): one
# CPython test module, named by WB_TRAIN_ARG, run quietly. Test failures do
# not matter here, only which code runs; an error outside the tests fails
# the training and so the build.
import io
import os
import sys
import unittest

sys.path[:0] = ['/cpython']
import test.support  # noqa: E402 (from the mount above)

test.support.verbose = 0
module = __import__('test.' + os.environ['WB_TRAIN_ARG'], fromlist=['*'])
if hasattr(module, 'test_main'):
    # regrtest's way: test_main() hands its suites to support._run_suite
    test.support._run_suite = lambda suite: unittest.TextTestRunner(stream=io.StringIO()).run(suite)
    module.test_main()
else:
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    unittest.TextTestRunner(stream=io.StringIO()).run(suite)
