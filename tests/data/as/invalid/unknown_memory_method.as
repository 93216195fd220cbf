import memory Lessons from "file://./l.jsonl"

main agent A {
    main func(input) {
        Lessons.remove(input)
    }
}
