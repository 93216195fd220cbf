import memory Lessons from "file://./l.jsonl"

main agent A {
    main func(input) {
        helper()
        B(1, 2)
        B.work()
        Lessons.add()
        Lessons.query({ text: "a" }, 2)
    }
    func helper(x) {
    }
}

agent B {
    main func(task) {
    }
    func work(a, b) {
    }
}
