import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Observer"
    description "Observe."

    main func(input) {
        scratch = []
        use scratch.summary max 2k as observations
        use scratch.length as count
        scratch.add({ fact: "A" })
        scratch.add({ fact: "B", n: 2 })
        generate({ input: "Report." })
    }
}
