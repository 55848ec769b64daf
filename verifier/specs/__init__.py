"""The paper side: paper specs read from the project's YAML or SA-Bench's ``sau.json``, the claim compiler and the
spec drafts (paper text, not code). Import the submodules directly (``verifier.specs.load`` ...); this package
imports none of them, so that ``verifier.dimensions`` can use its check parsers without a cycle."""
