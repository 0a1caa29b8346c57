# Shared cells for the reference programs: the table's height, the arm bases and each arm's
# reach. Include with `# %% [include] _reach.py`.

# %% Helpers: the table, the arm bases and how well an arm reaches points
TABLE_Z = 0.765
HOVER_Z = TABLE_Z + 0.08  # straight-down moves reach this height over most of the table
BASES = {'left': (-0.30, -0.45), 'right': (0.30, -0.45)}


def dist(arm, xy):
    """Return the distance (m) in the table plane from the arm's base to xy."""
    return math.hypot(xy[0] - BASES[arm][0], xy[1] - BASES[arm][1])


def reach_excess(arm, *points):
    """Return how far (m) the worst point lies outside the arm's easy reach, 0.18-0.38 m."""
    bx, by = BASES[arm]
    return max(max(0.18 - d, d - 0.38, 0.0)
               for d in (math.hypot(p[0] - bx, p[1] - by) for p in points))


def best_arm(*points):
    """Return the arm that reaches all points best (then the one nearer the first point)."""
    return min(BASES, key=lambda a: (round(reach_excess(a, *points), 3),
                                     abs(points[0][0] - BASES[a][0])))
