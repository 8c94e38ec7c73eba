"""Naive loop versions of the vectorised helpers, for the tests to compare against."""


def loop_valid_mean(values, valid, axis):
    """Masked mean by explicit loops over a [T, B] grid."""
    T, B = len(values), len(values[0])
    if axis is None:
        pairs = [(values[t][b], valid[t][b]) for t in range(T) for b in range(B)]
        return sum(v * m for v, m in pairs) / sum(m for _, m in pairs)
    if axis == 0:
        return [
            sum(values[t][b] * valid[t][b] for t in range(T)) / sum(valid[t][b] for t in range(T))
            for b in range(B)
        ]
    return [
        sum(values[t][b] * valid[t][b] for b in range(B)) / sum(valid[t][b] for b in range(B))
        for t in range(T)
    ]


def loop_windows(buffer, T_idxs, B_idxs, T):
    """Windows of length T out of a ring buffer, one element at a time, as nested lists."""
    length = len(buffer)
    windows = [[None] * len(B_idxs) for _ in range(T)]
    for i, (start, b) in enumerate(zip(T_idxs, B_idxs, strict=True)):
        for t in range(T):
            time_index = start + t
            if time_index >= length:
                time_index -= length
            if time_index < 0:
                time_index += length
            windows[t][i] = buffer[time_index][b]
    return windows
