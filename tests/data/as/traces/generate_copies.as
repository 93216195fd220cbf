import llm M from "openai://gpt-4o"

agent Helper {
    model M
    role "Helper"
    description "Helps."

    main func(topic) {
        generate({ input: topic }) -> {
            title string
            tags list[string]
        }
    }
}

main agent Desk {
    model M
    role "Desk"
    description "Collects."

    main func(input) {
        nested = Helper(input.topic)
        nested.title = "changed by the caller"
        nested.tags.add("added by the caller")
        direct = generate({ input: "Summarise." }) -> {
            summary string
        }
        direct.summary = "changed later"
        return [nested, direct]
    }
}
