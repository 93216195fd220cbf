import llm M from "openai://gpt-4o"
import tool Search from "mcp://tools/search"

main agent A {
    model M
    role "X"
    description "Y"

    main func(input) {
        use input.q as system
        use Search
        generate({ input: "Z", bogus: 1 })
    }
}
