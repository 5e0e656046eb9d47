# tsfile.codecs._common: argument handling shared by the codec modules; its helpers are C-level
# (see _common.pxd). The only Python-level name:
PATH_NAMES: tuple[str, ...]
