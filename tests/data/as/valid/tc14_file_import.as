import llm M from "anthropic://claude-3-5-haiku-latest"
import file Notes from "./notes.md"
import file Config from "./config.json"

main agent A {
    model M
    role "Reader"
    description "Read files."

    main func(input) {
        use Notes max 15 as notes
        use Config as config
        generate({ input: "Read.", max_output: 50 }) -> {
            ok boolean
        }
    }
}
