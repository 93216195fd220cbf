import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Summarizer"
    description "Summarize items."

    main func(input) {
        items = ["alpha", "beta", "gamma"]
        use items max 25 as items
        record = { first: "alpha", second: "beta", third: { deep: [1, 2] } }
        use record max 30 as record
        use 12345 max 3 as number
        generate({ input: "Go." }) -> {
            ok boolean
        }
    }
}
