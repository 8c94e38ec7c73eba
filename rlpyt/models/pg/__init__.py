"""Policy-gradient models: policy (softmax probabilities or Gaussian mean/log_std) and value."""
