/* Constants of our wasm-rt implementation (wasm_rt.c) that the engine shares. */
#ifndef WASMBOX_ENGINE_WASM_RT_EXT_H
#define WASMBOX_ENGINE_WASM_RT_EXT_H

/* Address space reserved per linear memory: any 32-bit address plus a 32-bit
 * offset falls inside, so every out-of-bounds access faults. */
#define WB_MEMORY_RESERVATION (8ull << 30)

/* Largest table the host will allocate for a guest (elements). */
#define WB_TABLE_MAX (1u << 20)

#endif
