import llm Model from "openai://gpt-4o-mini"

main agent Reviewer {
    model Model
    role "Reviewer"
    description "Say whether a change is fine."

    main func(input) {
        use input.diff as change
        use input.notes as notes
        generate({ input: "Summarise the review." }) -> {
            ok boolean
        }
    }
}
