"""Tree-model (non-aligned) writing: the chunks of one series and the per-device buffers."""
