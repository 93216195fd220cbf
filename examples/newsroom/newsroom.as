import llm Model from "openai://gpt-4.1-mini"
import agent Critic from "./critic.as"

main agent Editor {
    model Model
    role "News Editor"
    description "Turn a reporter's notes into a short, accurate story."

    main func(input) {
        use input.notes as reporter notes
        draft = generate({ input: "Write a headline and a four-sentence story from the notes." }) -> {
            headline string
            story string
        }
        review = Critic({ notes: input.notes, draft: draft })
        use draft as first draft
        use review.problems max 600 as problems found
        final = generate({ input: "Rewrite the story so that every problem found is fixed." }) -> {
            headline string
            story string
        }
        final
    }
}
