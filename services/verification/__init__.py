"""Citation support verification (SPEC §11): does the cited source back the claim? Pure logic."""
