import memory Notes from "file://./notes.jsonl"

main agent Finder {
    main func(input) {
        found = Notes.query({ where: input.where })
        ids = []
        for hit in found max 10 {
            ids.add(hit.id)
        }
        ids
    }
}
