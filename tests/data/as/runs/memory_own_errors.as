import memory Notes from "file://./notes.jsonl"

main agent Keeper {
    main func(input) {
        if input.add {
            return Notes.add(input.value)
        }
        found = Notes.query(input.value)
        found
    }
}
