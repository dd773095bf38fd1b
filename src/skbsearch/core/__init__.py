"""L0: the core types, the stage protocol and operators, errors, atomic writes and the
small helpers every layer uses."""
