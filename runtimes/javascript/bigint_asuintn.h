/* wasmbox fix for QuickJS 2025-04-26, included into quickjs.c just before
 * js_bigint_asUintN (see build.sh), which calls it for every asUintN.
 *
 * Upstream returns a negative value unchanged whenever `bits` is at least the
 * width it is stored in, so BigInt.asUintN(64, -1n) gives -1n instead of
 * 2n**64n - 1n; and when `bits` is a multiple of the limb size the masked top
 * limb may keep its sign bit. The result is a mod 2**bits: the low `bits` bits
 * of a's two's complement (sign-extended as far as needed) read as a
 * non-negative number, hence one extra zero limb on top before normalising.
 * Takes ownership of `a`. */
static JSValue wb_bigint_asUintN(JSContext *ctx, uint64_t bits, JSValue a)
{
    js_limb_t short_tab[1];
    const js_limb_t *tab;
    js_limb_t ext;
    JSBigInt *r;
    int alen, len, i;

    if (JS_VALUE_GET_TAG(a) == JS_TAG_SHORT_BIG_INT) {
        short_tab[0] = (js_limb_t)(js_slimb_t)JS_VALUE_GET_SHORT_BIG_INT(a);
        tab = short_tab;
        alen = 1;
    } else {
        JSBigInt *p = JS_VALUE_GET_PTR(a);
        tab = p->tab;
        alen = p->len;
    }
    ext = (js_slimb_t)tab[alen - 1] < 0 ? (js_limb_t)-1 : 0;
    /* non-negative and already narrower than `bits`: unchanged */
    if (ext == 0 && bits >= (uint64_t)alen * JS_LIMB_BITS)
        return a;
    if (bits > (uint64_t)JS_BIGINT_MAX_SIZE * JS_LIMB_BITS) {
        JS_FreeValue(ctx, a);
        return JS_ThrowRangeError(ctx, "BigInt is too large to allocate");
    }
    len = (int)((bits + JS_LIMB_BITS - 1) / JS_LIMB_BITS);
    r = js_bigint_new(ctx, len + 1);
    if (!r) {
        JS_FreeValue(ctx, a);
        return JS_EXCEPTION;
    }
    for (i = 0; i < len; i++)
        r->tab[i] = i < alen ? tab[i] : ext;
    if (bits % JS_LIMB_BITS)
        r->tab[len - 1] &= ((js_limb_t)1 << (bits % JS_LIMB_BITS)) - 1;
    r->tab[len] = 0;
    JS_FreeValue(ctx, a);
    r = js_bigint_normalize(ctx, r);
    return JS_CompactBigInt(ctx, r);
}
