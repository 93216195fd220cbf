"""``asrender``, the application: the command line (:mod:`.cli`), what a run reads (:mod:`.inputs`),
a run of a program or a prompt file (:mod:`.run`), pointing its calls at a provider (:mod:`.retarget`),
``asrender snapshot`` (:mod:`.snapshot`) and ``asrender serve`` (:mod:`.inspector`)."""
