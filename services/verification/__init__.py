"""Citation support verification: does the cited source back the claim? Pure logic."""
