import memory Notes from "file://./notes.jsonl"

main agent Keeper {
    main func(input) {
        added = Notes.add({ kind: "lesson", text: "Keep it short", topic: "style" })
        found = Notes.query({ kind: "lesson", where: { topic: "style" }, limit: 5 })
        empty = Notes.query({ text: "absent" })
        found.add("added later")
        added.extra = "set later"
        added.record.topic = "changed later"
        return [found.length, empty.length]
    }
}
