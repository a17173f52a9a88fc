"""Train, evaluate, tournament, bench, baselines and the ``tabletop-gym`` command line: the top layer,
which may import every other part of the package and is imported by none of them."""
