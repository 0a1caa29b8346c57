# Reference program for `swap_blocks`: exchange two blocks' positions (each within 20 mm of the
# other's start). Remember both starts precisely, park one block on a free spot, then swap.

# %% [include] _measure_and_grasp.py

# %% Read the task and define helpers
import re

a_name, b_name = re.search(r'of the (\w+ block) and the (\w+ block)', instruction).groups()


def find_near(name, xy):
    """Return (query, result) for the object called name nearest xy, using qualifiers."""
    seen = [(f'{q}{name}', robo.locate(f'{q}{name}'))
            for q in ('', 'leftmost ', 'rightmost ', 'nearest ')]
    seen = [(q, r) for q, r in seen if r.found]
    if not seen:
        return name, robo.locate(name)
    return min(seen, key=lambda qr: math.dist(qr[1].position_m[:2], xy))


# %% Choose the arm that reaches both blocks; measure and remember both starts
a, b = locate_all(a_name, b_name)
arm = arm_for(a.position_m, b.position_m)
print(robo.home('right' if arm == 'left' else 'left'))
a, b = measure(a_name, arm, a), measure(b_name, arm, b)
start_a, start_b = a.position_m[:2], b.position_m[:2]
park = free_spot(arm, [start_a, start_b])
print(f'{arm} arm; starts {a_name} ({start_a[0]:.3f}, {start_a[1]:.3f}), {b_name} '
      f'({start_b[0]:.3f}, {start_b[1]:.3f}); parking at ({park[0]:.3f}, {park[1]:.3f}) m')

# %% Park the first block, move the second to the first's start, then the first to the second's
assert grasp(a_name, arm, a), f'could not pick up the {a_name}'
put_down(arm, park)
assert grasp(b_name, arm, b), f'could not pick up the {b_name}'
put_down(arm, start_a)
robo.home(arm)
query, parked = find_near(a_name, park)
assert grasp(query, arm, measure(query, arm, parked)), f'could not pick up the {a_name} again'
put_down(arm, start_b)

# %% Check both with a measurement; re-place a block that is more than 8 mm off
for name, goal in ((a_name, start_b), (b_name, start_a)) * 2:
    robo.home(arm)
    query, seen = find_near(name, goal)
    seen = measure(query, arm, seen)
    if not seen.found:
        continue
    off = math.dist(seen.position_m[:2], goal)
    print(f'{name} is {off * 1000:.0f} mm from its goal')
    if off > 0.008 and grasp(query, arm, seen):
        put_down(arm, goal)
robo.show('head', note='after swapping')
