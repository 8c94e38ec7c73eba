"""Action distributions: sampling, likelihoods, entropy and KL over ``dist_info`` records."""
