import llm M from "openai://gpt-4o"

main agent A {
    model M
    role "Parser"
    description "Show that newlines do not end expressions."

    main func(input) {
        x = input.items
        [0]
    }
}
