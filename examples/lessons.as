import llm Model from "openai://gpt-4.1-mini"
import memory Lessons from "file://lessons.jsonl"

main agent Mentor {
    model Model
    role "Patient Mentor"
    description "Answer briefly, and keep one lesson from every answer for the next run."

    main func(input) {
        past = Lessons.query({ text: input.topic, kind: "lesson", limit: 3 })
        use input.question as question
        use past max 500 as lessons learned
        answer = generate({ input: "Answer the question, then state one lesson for next time." }) -> {
            answer string
            lesson string
        }
        Lessons.add({ kind: "lesson", topic: input.topic, text: answer.lesson })
        answer
    }
}
