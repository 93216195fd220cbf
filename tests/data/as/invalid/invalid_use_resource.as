import llm M from "openai://gpt-4o"
import tool T from "file://x"
import memory Mem from "file://./m.jsonl"
import file F from "./f.md"

main agent A {
    model M
    role "R"
    description "D"
    main func(input) {
        use M
        use T.read
        use Mem
        use A
        use helper[0]
        use F
        use helper(input)
    }
    func helper(x) {
    }
}
