# escape: allocate until the host runs out
# option memory 64
# expect status out_of_memory
# expect guidance_has memory
chunks = []
while True:
    chunks.append(bytearray(1 << 20))
