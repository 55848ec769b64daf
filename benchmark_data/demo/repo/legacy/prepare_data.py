# Data preparation, left over from an older Python 2 code base: this file would not import.
import sys

VOCAB_SIZE = 50304
BLOCK_SIZE = 1024

def clip(tokens):
    return tokens[:BLOCK_SIZE]

def main():
    print "tokenising with a vocabulary of", VOCAB_SIZE
    sys.exit(0)
