"""Whether each broker answers at all: an ApiVersions request on a connection of its own,
every second, with a short deadline, from the job's driver (no topic in between), so a dead
or hung broker is seen within seconds whatever it leads and whichever cluster carries the
monitor's own topics."""
