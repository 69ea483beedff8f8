# Prints the limits it runs under (-1: none), as the runner set them before it started.
import resource

for name in ["RLIMIT_DATA", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_CORE"]:
    soft, hard = resource.getrlimit(getattr(resource, name))
    print(name, soft, hard)
