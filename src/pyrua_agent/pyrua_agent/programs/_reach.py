# Shared cells for the reference programs: the table's height, the arm bases and each arm's
# reach, read from the station (robo.station_facts(): the prompt's station facts).
# Include with `# %% [include] _reach.py`.

# %% Helpers: the table, the arm bases and how well an arm reaches points
FACTS = robo.station_facts()
TABLE_Z = FACTS.table_z_m
HOVER_Z = TABLE_Z + 0.08  # straight-down moves reach this height over most of the table
BASES = {arm: FACTS.base_xy(arm) for arm in FACTS.arms}
TIPS_M = FACTS.fingertip_beyond_tcp_m  # the finger tips reach this far below the TCP
LOWEST_Z = FACTS.lowest_descend_z_m  # a descent's lowest TCP z: the tips on the gate's floor
EASY_REACH_M = (0.18, 0.38)  # where these programs like to grasp: inside the facts' band


def dist(arm, xy):
    """Return the distance (m) in the table plane from the arm's base to xy."""
    return math.hypot(xy[0] - BASES[arm][0], xy[1] - BASES[arm][1])


def reach_excess(arm, *points):
    """Return how far (m) the worst point lies outside the arm's easy reach (EASY_REACH_M)."""
    near, far = EASY_REACH_M
    return max(max(near - d, d - far, 0.0) for d in (dist(arm, p) for p in points))


def best_arm(*points):
    """Return the arm that reaches all points best (then the one nearer the first point)."""
    return min(BASES, key=lambda a: (round(reach_excess(a, *points), 3),
                                     abs(points[0][0] - BASES[a][0])))
