# tsfile.codecs._kinds has no Python-level API: it holds the C-level value-kind helpers shared by
# the PLAIN, RLE, ZIGZAG and DICTIONARY modules (see _kinds.pxd).
