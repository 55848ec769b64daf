"""tinygpt: a tiny normalized transformer (demo repository for sauverify)."""
