"""A run of a program or a prompt file, one row or many: what the library (``promptwire.run``,
``promptwire.batch``) and the command line (``asrender``) share. :mod:`.options` is the one record a
run is made from; :mod:`.run` makes it; :mod:`.batch` runs rows; :mod:`.inputs` reads a run's data.
"""
