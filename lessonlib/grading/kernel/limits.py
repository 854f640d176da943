"""Size limits of a graded run (a light module: the pytest plugin imports it in every session)."""

#: Characters one cell of a graded run may print per stream; the kernel drops the rest, and the
#: nbval side caps each cell's captured text again (whatever slipped past the kernel's cap).
OUTPUT_LIMIT = 64 * 1024
#: Largest kernel message (bytes) the nbval process accepts; a bigger one drops the connection.
MAX_MESSAGE = 8 * 2**20
