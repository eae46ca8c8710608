"""The text prof writes for a name of any bytes (report/utf8.hpp, docs/formats.md "Names"),
written again from the documentation so the tests check the C++ against the rule, not itself.

escaped_text(raw): each byte that is not part of well-formed UTF-8, and NUL, becomes \\xNN; a
backslash is doubled where it would otherwise read as an escape. unescaped(text) reads it back.
"""
import re


def _units(raw):
    """(bytes, escape or None) for each character or stray byte of raw."""
    i = 0
    while i < len(raw):
        for length in range(1, 5):
            try:
                raw[i:i + length].decode("utf-8")
            except UnicodeDecodeError:
                continue
            piece = raw[i:i + length]
            yield piece, ("\\x00" if piece == b"\x00" else None)
            i += length
            break
        else:
            yield raw[i:i + 1], "\\x%02x" % raw[i]
            i += 1


def escaped_text(raw):
    if isinstance(raw, str):
        raw = raw.encode()
    units = list(_units(raw))
    out = []
    for k, (piece, escape) in enumerate(units):
        if escape is not None:
            out.append(escape)
        elif piece == b"\\":
            rest = b"".join(p for p, _ in units[k + 1:]).decode("utf-8", "replace")
            next_escaped = k + 1 < len(units) and units[k + 1][1] is not None
            doubled = (next_escaped or rest.startswith("\\") or re.match(r"x[0-9a-fA-F]{2}", rest)
                       or re.match(r"u[0-9a-fA-F]{4}", rest))
            out.append("\\\\" if doubled else "\\")
        else:
            out.append(piece.decode("utf-8"))
    return "".join(out)


def unescaped(text):
    """The bytes a written name stands for: \\\\ a backslash, \\xNN a byte, \\uNNNN a code point."""
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "\\" and text[i + 1:i + 2] == "\\":
            out += b"\\"
            i += 2
        elif text[i] == "\\" and re.match(r"x[0-9a-fA-F]{2}", text[i + 1:i + 4]):
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        elif text[i] == "\\" and re.match(r"u[0-9a-fA-F]{4}", text[i + 1:i + 6]):
            out += chr(int(text[i + 2:i + 6], 16)).encode()
            i += 6
        else:
            out += text[i].encode()
            i += 1
    return bytes(out)
