/* Pillow built into the Python runtime (runtimes/python/pillow.sh): PNG and
 * JPEG files in /app opened, resized, cropped, converted, drawn on (the
 * default bitmap font and TrueType fonts included) and saved, with the values Debian's
 * python3-pil 9.4 gives natively for the same code; and bad image files,
 * which raise what native Pillow raises. */
#include "harness.h"

/* Writes /app/in.png and /app/in.jpg: a 64x48 gradient. */
static const char make_images[] =
    "from PIL import Image\n"
    "im = Image.new('RGB', (64, 48))\n"
    "for x in range(64):\n"
    "    for y in range(48):\n"
    "        im.putpixel((x, y), (x * 4, y * 5, (x + y) * 2))\n"
    "im.save('in.png'); im.save('in.jpg', quality=90)\n";

static const char use_images[] =
    "from PIL import Image, ImageDraw, ImageFont\n"
    "png, jpg = Image.open('in.png'), Image.open('in.jpg')\n"
    "print(png.format, png.mode, png.size, jpg.format, jpg.mode, jpg.size)\n"
    "print(png.getpixel((10, 20)), jpg.getpixel((10, 20)))\n"
    "small = png.resize((32, 24), Image.BILINEAR).crop((4, 2, 28, 22))\n"
    "print(small.size, small.getpixel((0, 0)), small.getpixel((23, 19)))\n"
    "gray = jpg.convert('L')\n"
    "print(gray.mode, gray.getpixel((10, 20)), gray.getextrema())\n"
    "d = ImageDraw.Draw(png)\n"
    "d.rectangle((2, 2, 20, 12), fill=(255, 0, 0), outline=(0, 0, 255))\n"
    "d.text((24, 30), 'Hi', fill=(255, 255, 255), font=ImageFont.load_default())\n"
    "print(png.getpixel((10, 6)), png.getpixel((2, 2)), png.getbbox(), "
    "sum(png.crop((24, 30, 40, 41)).convert('L').point(lambda v: v == 255 and 255).histogram()[255:]))\n"
    "png.save('out.png'); png.save('out.jpg', quality=75); gray.save('gray.png')\n"
    "back, backj = Image.open('out.png'), Image.open('out.jpg')\n"
    "print(back.size, back.getpixel((10, 6)), backj.format, backj.size, backj.getpixel((10, 6)), "
    "Image.open('gray.png').mode)\n";

/* what Debian's python3-pil 9.4.0 (libjpeg-turbo 2.1.5) prints */
static const char native_output[] =
    "PNG RGB (64, 48) JPEG RGB (64, 48)\n"
    "(40, 100, 60) (39, 100, 59)\n"
    "(24, 20) (34, 23, 26) (218, 213, 194)\n"
    "L 77 (0, 238)\n"
    "(255, 0, 0) (0, 0, 255) (0, 0, 64, 48) 45\n"
    "(64, 48) (255, 0, 0) JPEG (64, 48) (254, 4, 0) L\n";

static size_t read_bytes(const char *dir, const char *name, unsigned char *buf, size_t cap) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_open_resize_crop_convert_draw_save(void **s) {
  (void)s;
  char *dir = make_dir();
  expect_output(make_images, dir, "");
  expect_output(use_images, dir, native_output);
  /* the files written are what their names say, read by the host */
  unsigned char b[64];
  assert_true(read_bytes(dir, "out.png", b, sizeof b) >= 24);
  assert_memory_equal(b, "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  assert_int_equal(be32(b + 16), 64);
  assert_int_equal(be32(b + 20), 48);
  assert_true(read_bytes(dir, "out.jpg", b, sizeof b) >= 4);
  assert_memory_equal(b, "\xff\xd8\xff", 3);
  rm_tree(dir);
  free(dir);
}

/* The modules are built in under native Pillow's names; its metadata is there;
 * FreeType is Debian's version; what is not built (raqm, WebP, lcms) is
 * reported missing, as by a native Pillow built without them. */
static void test_modules_and_features(void **s) {
  (void)s;
  expect_output(
      "import PIL, sys, importlib.metadata\n"
      "from PIL import Image, features, _imaging, _imagingmath, _imagingmorph, _imagingft\n"
      "print(PIL.__version__, importlib.metadata.version('Pillow'), _imaging.__name__, "
      "'PIL._imaging' in sys.builtin_module_names)\n"
      "print(features.check('jpg'), features.check('zlib'), features.check('freetype2'), "
      "features.check('webp'), features.check('littlecms2'))\n"
      "print(features.version('freetype2'), features.check('raqm'), _imagingft.__name__)\n",
      NULL,
      "9.4.0 9.4.0 PIL._imaging True\n"
      "True True True False False\n"
      "2.12.1 False PIL._imagingft\n");
}

/* Each bad file raises the exception native Pillow raises, with its message
 * (a truncated or corrupt PNG goes through Pillow's Python parser and its C
 * zlib decoder), and the next call runs. One message differs: natively the
 * truncated JPEG leaves "5 bytes not processed", since libjpeg-turbo's bit
 * buffer is 64-bit there and 32-bit on wasm32 (jdhuff.h): it reads ahead less. */
static void test_bad_images_raise_what_pillow_raises(void **s) {
  (void)s;
  char *dir = make_dir();
  expect_output(make_images, dir, "");
  expect_output(
      "import struct, zlib\n"
      "def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))\n"
      "sig = b'\\x89PNG\\r\\n\\x1a\\n'\n"
      "ihdr = chunk(b'IHDR', struct.pack('>IIBBBBB', 16, 16, 8, 2, 0, 0, 0))\n"
      "d = open('in.png', 'rb').read()\n"
      "files = {'cut.png': sig + ihdr[:10], 'badcrc.png': sig + ihdr[:-1] + b'\\0' + chunk(b'IEND', b''),\n"
      "  'badzlib.png': sig + ihdr + chunk(b'IDAT', b'\\x78\\x9c' + b'\\xff' * 40) + chunk(b'IEND', b''),\n"
      "  'half.png': d[:len(d) // 2], 'text.png': b'not an image',\n"
      "  'bomb.png': sig + chunk(b'IHDR', struct.pack('>IIBBBBB', 100000, 100000, 8, 2, 0, 0, 0))\n"
      "    + chunk(b'IEND', b''),\n"
      "  'half.jpg': open('in.jpg', 'rb').read()[:800]}\n"
      "for name, data in files.items():\n"
      "    open(name, 'wb').write(data)\n",
      dir, "");
  expect_output(
      "from PIL import Image\n"
      "for name in ('cut.png', 'badcrc.png', 'badzlib.png', 'half.png', 'text.png', 'bomb.png', "
      "'half.jpg'):\n"
      "    try:\n"
      "        im = Image.open(name); im.load(); print(name, 'opened')\n"
      "    except Exception as e:\n"
      "        print(name, type(e).__name__, isinstance(e, OSError), e)\n",
      dir,
      "cut.png OSError True Truncated File Read\n"
      "badcrc.png UnidentifiedImageError True cannot identify image file 'badcrc.png'\n"
      "badzlib.png OSError True broken data stream when reading image file\n"
      "half.png OSError True image file is truncated\n"
      "text.png UnidentifiedImageError True cannot identify image file 'text.png'\n"
      "bomb.png DecompressionBombError False Image size (10000000000 pixels) exceeds limit of "
      "178956970 pixels, could be decompression bomb DOS attack.\n"
      "half.jpg OSError True image file is truncated (9 bytes not processed)\n");
  wasmbox_result *r =
      expect_exception("from PIL import Image\nImage.open('text.png')", dir, "PIL.UnidentifiedImageError");
  wasmbox_result_free(r);
  rm_tree(dir);
  free(dir);
}

/* JPEGs that libjpeg finds fatally broken (a Huffman table that overflows,
 * a scan naming a component the frame lacks) raise OSError as natively:
 * libjpeg's error hook longjmps back to Pillow's setjmp (real setjmp on
 * WebAssembly exceptions, runtimes/common/sjlj), not a trap; the same call
 * goes on, and the next one runs. */
static void test_fatal_jpeg_error_raises_oserror(void **s) {
  (void)s;
  char *dir = make_dir();
  expect_output(make_images, dir, "");
  expect_output(
      "j = bytearray(open('in.jpg', 'rb').read())\n"
      "k = j.find(b'\\xff\\xc4')\n"
      "j[k + 5:k + 21] = b'\\xff' * 16\n"
      "open('bad.jpg', 'wb').write(j)\n"
      "d = bytearray(open('in.jpg', 'rb').read())\n"
      "d[d.find(b'\\xff\\xda') + 5] = 9\n"
      "open('badsos.jpg', 'wb').write(d)\n"
      "from PIL import Image\n"
      "for name in ('bad.jpg', 'badsos.jpg'):\n"
      "    try:\n"
      "        im = Image.open(name); print(im.size); im.load()\n"
      "    except Exception as e:\n"
      "        print(name, type(e).__name__, e)\n"
      "print(Image.open('in.jpg').convert('L').getpixel((10, 20)))\n",
      dir,
      "(64, 48)\n"
      "bad.jpg OSError broken data stream when reading image file\n"
      "(64, 48)\n"
      "badsos.jpg OSError broken data stream when reading image file\n"
      "77\n");
  expect_output("from PIL import Image\nprint(Image.open('in.jpg').convert('L').getpixel((10, 20)))", dir, "77\n");
  rm_tree(dir);
  free(dir);
}

/* TrueType text (PIL._imagingft on runtimes/freetype.sh): Debian's DejaVu
 * fonts found by name where Linux keeps them (/usr/share/fonts), measured and
 * drawn with the values Debian's python3-pil 9.4 gives natively with the
 * basic layout (natively raqm is there; here it is not, so basic is the
 * default). The 400-pixel glyphs fill FreeType's cell pool, whose rasterizer
 * then longjmps to render in bands (real setjmp, runtimes/common/sjlj). A
 * missing font and corrupt ones raise OSError as natively, not a trap. */
static void test_truetype_fonts(void **s) {
  (void)s;
  char *dir = make_dir();
  expect_output(
      "from PIL import Image, ImageDraw, ImageFont\n"
      "f = ImageFont.truetype('DejaVuSans.ttf', 20)\n"
      "print(f.path, f.getname(), f.getbbox('Hello, wasm'), f.getlength('Hello, wasm'))\n"
      "im = Image.new('L', (200, 40))\n"
      "ImageDraw.Draw(im).text((5, 5), 'Hello, wasm', font=f, fill=255)\n"
      "h = im.histogram()\n"
      "print(im.getbbox(), sum(h[1:]), sum(i * n for i, n in enumerate(h)))\n"
      "big = ImageFont.truetype('DejaVuSerif-Bold.ttf', 400)\n"
      "im = Image.new('L', (900, 500))\n"
      "ImageDraw.Draw(im).text((0, 0), '@W', font=big, fill=255)\n"
      "h = im.histogram()\n"
      "print(im.getbbox(), sum(h[1:]), sum(i * n for i, n in enumerate(h)))\n"
      "open('bad.ttf', 'wb').write(b'\\x00\\x01\\x00\\x00' + b'\\xff' * 200)\n"
      "open('cut.ttf', 'wb').write(open(f.path, 'rb').read()[:2000])\n"
      "for name in ('NoSuchFont.ttf', 'bad.ttf', 'cut.ttf'):\n"
      "    try:\n"
      "        ImageFont.truetype(name, 12); print(name, 'opened')\n"
      "    except Exception as e:\n"
      "        print(name, type(e).__name__, e)\n",
      dir,
      "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ('DejaVu Sans', 'Book') (0, 4, 120, 22) 120.0\n"
      "(6, 9, 124, 27) 775 129325\n"
      "(26, 84, 854, 446) 106637 26480061\n"
      "NoSuchFont.ttf OSError cannot open resource\n"
      "bad.ttf OSError unknown file format\n"
      "cut.ttf OSError unknown file format\n");
  expect_output("from PIL import ImageFont\nprint(ImageFont.truetype('DejaVuSans-Bold.ttf', 9).getname())", dir,
                "('DejaVu Sans', 'Bold')\n");
  rm_tree(dir);
  free(dir);
}

/* An image beyond the call's memory limit is MemoryError (out_of_memory);
 * a long loop in Pillow's C code stops at the deadline; the next call runs. */
static void test_limits_stop_pillow(void **s) {
  (void)s;
  wasmbox_result *r = run_py("from PIL import Image\nImage.new('RGB', (20000, 20000))");
  if (r->status != WASMBOX_STATUS_OUT_OF_MEMORY) dump(r);
  expect_status(r, WASMBOX_STATUS_OUT_OF_MEMORY);
  assert_string_equal(r->error_type, "MemoryError");
  wasmbox_result_free(r);
  wasmbox_request req = {.code =
                             "from PIL import Image\nim = Image.new('RGB', (2000, 2000))\n"
                             "while True:\n    im = im.resize((2001, 1999), Image.LANCZOS).resize((2000, 2000))\n",
                         .timeout_seconds = 0.5};
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  wasmbox_result_free(r);
  expect_output("from PIL import Image\nprint(Image.new('L', (3, 2), 7).getextrema())", NULL, "(7, 7)\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open_resize_crop_convert_draw_save),
      cmocka_unit_test(test_modules_and_features),
      cmocka_unit_test(test_bad_images_raise_what_pillow_raises),
      cmocka_unit_test(test_fatal_jpeg_error_raises_oserror),
      cmocka_unit_test(test_truetype_fonts),
      cmocka_unit_test(test_limits_stop_pillow),
  };
  return RUN("pillow", tests);
}
