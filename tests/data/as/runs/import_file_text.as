import llm M from "openai://gpt-4o"
import file Lines from "./lines.txt"
import file Marked from "./marked.md"
import file Broken from "./broken.txt"
import file Data from "./data.json"

main agent A {
    model M
    role "Reader"
    description "Read files as stored."

    main func(input) {
        use Lines max 9 as lines
        use Marked as marked
        use Broken as broken
        use Data as data
        generate({ input: "Read." })
    }
}
