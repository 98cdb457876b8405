#!/usr/bin/env python3
"""A subset of Pillow's own test suite (9.4.0's Tests/, the files about what
the runtime builds: the core, PNG, JPEG, GIF, BMP, drawing, the operations)
inside wasmbox against the built-in Pillow, next to Debian's python3-pil
9.4.0 natively (the same source; it also has FreeType, lcms, WebP and TIFF),
test by test, compared with pillow_expected_failures.txt.

usage: pillow_suite.py WASMBOX PILLOW_TESTS PYTEST_SITE BUILTIN_SITE
PILLOW_TESTS: the runtime's pillow-tests (Tests/ and conftest.py);
PYTEST_SITE: pytest, Debian's, given to wasmbox with --packages;
BUILTIN_SITE: the built-in pure-Python packages (pytest needs attrs), for
the native run. Fails when a test fails or does not run in wasmbox that
passes natively and is not listed, when a listed one passes, or when the
suite does not run.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from packages import FLAGS, judge, passed_natively_only, results, run_per_file  # noqa: E402 (the shared driver)

FILES = '''test_000_sanity test_image test_image_convert test_image_resize test_image_crop test_image_transform
test_image_rotate test_image_paste test_image_point test_image_filter test_image_split test_image_transpose
test_image_thumbnail test_image_reduce test_image_getbbox test_image_histogram test_image_frombytes
test_image_tobytes test_image_mode test_image_load test_image_quantize test_imagedraw test_imagedraw2
test_imageops test_imagechops test_imagemath test_imagemorph test_imageenhance test_imagecolor test_imagepalette
test_imagepath test_imagestat test_imagefile test_box_blur test_lib_pack test_format_hsv test_file_png
test_file_jpeg test_file_gif test_file_bmp test_file_ppm test_imagefont'''.split()


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    wasmbox, tests, pytest_site, builtin = (os.path.abspath(a) for a in sys.argv[1:5])
    paths = ['Tests/%s.py' % f for f in FILES]
    work = tempfile.mkdtemp(prefix='wasmbox-pillow-')
    try:
        here = os.path.join(work, 'native')
        shutil.copytree(tests, here)
        env = dict(os.environ, PYTHONPATH=pytest_site + ':' + builtin, PYTHONDONTWRITEBYTECODE='1')
        subprocess.run(['/usr/bin/python3.11', '-m', 'pytest', *FLAGS, *paths], cwd=here, env=env,
                       capture_output=True, text=True, timeout=1800)
        report = os.path.join(here, 'report.xml')
        nat = results(report) if os.path.exists(report) else {}
        work_box = os.path.join(work, 'box')
        shutil.copytree(tests, work_box)
        # the tree (69 MB of images) and what the tests write need more
        # than the default quota
        box, broken = run_per_file(wasmbox, work_box, pytest_site, paths, run_args=['--quota', '1024'])
    finally:
        shutil.rmtree(work)
    judge('pillow', nat, box, broken,
          passed_natively_only, 'pass natively only (skipped or not run in wasmbox)')


if __name__ == '__main__':
    main()
