// Every construct of the 0.1.5 grammar at least once.
import llm Qwen from "ollama://localhost:11434/qwen3.6"
import tool Find from "sh://find"
import file Notes from './notes.md'
import memory Lessons from "file://./.agentscript/lessons.jsonl"
import agent Reviewer from "./reviewer.as"

main agent {
    model Qwen
    role "Planner"
    description 'Plans with \'single\' quotes and \q odd escapes.'

    main func(input { goal string, steps list[string] depth number ok boolean meta json raw list }) {
        step-1 = input.goal
        budget = 2k-3
        files = Find.run({ path: ".", name: "*.as", max: 50, "quoted key": true, })
        past = Lessons.query({ text: input.goal, limit: 5 })
        results = []
        use past max 1.5k as past lessons
        use Notes max 4kb
        repeat * 2 {
            results.add(step-1)
        }
        for item in input.steps max 12 {
            use item as current step
            result = Worker({ goal: input.goal, step: item })
            results.add(result)
        }
        done = false
        loop until done or results.length < 1 max 3 {
            done = not done == false and true != none
        }
        if input.ok {
            role "Inner planner"
            answer = generate({ input: { task: "plan", goal: input.goal } }) -> {
                summary string
                grid list[list[number]]
            }
        } else {
            return helper(results, input.goal)
        }
        meta = { a: 1, b: [1 2 3], c: { d: none } }
        meta.a = results[0]
        results.summary
    }

    func helper(list, max) {
        list[0]
    }
}

agent Worker {
    model Qwen
    role "Worker"
    description "Works."

    main func(task) {
        task.step
    }
}
