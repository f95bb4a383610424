#!/usr/bin/env python3
"""Synthetic kernel files for the annotate tests.

mkelf.py kcore OUT VADDR TEXTFILE [PATCH_OFF HEXBYTES]: an ELF64 core file (ET_CORE) with
  one PT_LOAD segment at VADDR holding the bytes of TEXTFILE (optionally patched at PATCH_OFF,
  as the kernel patches its own code: alternatives, static keys).
mkelf.py kcore-zero OUT VADDR END: the same with END - VADDR zero bytes (a sparse file), standing
  in for the live kernel's text (zero bytes disassemble as "add byte ptr [rax], al").
mkelf.py notes OUT HEXID: a raw ELF note stream with one NT_GNU_BUILD_ID, as
  /sys/kernel/notes and /sys/module/NAME/notes/.note.gnu.build-id read.
mkelf.py badtext IN OUT: a copy of the ELF IN whose .text section points past the end of
  the file (a truncated or corrupt object whose symbols still load)."""
import struct
import sys


def kcore_zero(out, vaddr, size):
    ehsize, phsize = 64, 56
    off = 4096
    eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    eh += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, ehsize, 0, 0, ehsize, phsize, 1, 64, 0, 0)
    ph = struct.pack("<IIQQQQQQ", 1, 5, off, vaddr, 0, size, size, 4096)
    with open(out, "wb") as f:
        f.write(eh + ph)
        f.truncate(off + size)


def kcore(out, vaddr, textfile, patch=None):
    data = bytearray(open(textfile, "rb").read())
    if patch:
        off, hexbytes = patch
        b = bytes.fromhex(hexbytes)
        data[off:off + len(b)] = b
    ehsize, phsize = 64, 56
    off = ehsize + phsize
    eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    eh += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, ehsize, 0, 0, ehsize, phsize, 1, 64, 0, 0)
    ph = struct.pack("<IIQQQQQQ", 1, 5, off, vaddr, 0, len(data), len(data), 4096)
    with open(out, "wb") as f:
        f.write(eh + ph + bytes(data))


def notes(out, hexid):
    desc = bytes.fromhex(hexid)
    n = struct.pack("<III", 4, len(desc), 3) + b"GNU\0" + desc
    n += bytes((4 - len(n) % 4) % 4)
    open(out, "wb").write(n)


def badtext(inp, out):
    b = bytearray(open(inp, "rb").read())
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
    strsh = shoff + shstrndx * shentsize
    stroff, = struct.unpack_from("<Q", b, strsh + 0x18)
    for i in range(shnum):
        sh = shoff + i * shentsize
        name, = struct.unpack_from("<I", b, sh)
        end = b.index(b"\0", stroff + name)
        if b[stroff + name:end] == b".text":
            struct.pack_into("<Q", b, sh + 0x18, len(b) + 0x100000)
    open(out, "wb").write(b)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "kcore":
        patch = (int(sys.argv[5], 0), sys.argv[6]) if len(sys.argv) > 6 else None
        kcore(sys.argv[2], int(sys.argv[3], 0), sys.argv[4], patch)
    elif cmd == "kcore-zero":
        kcore_zero(sys.argv[2], int(sys.argv[3], 0), int(sys.argv[4], 0) - int(sys.argv[3], 0))
    elif cmd == "notes":
        notes(sys.argv[2], sys.argv[3])
    elif cmd == "badtext":
        badtext(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: mkelf.py kcore|notes|badtext ...")
