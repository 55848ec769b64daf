"""The shared vocabulary of sauverify (``sau.vocabulary``): the records every layer passes to the next."""
