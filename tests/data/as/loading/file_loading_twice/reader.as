import agent Summer from "./summer.as"

agent Reader {
    main func(text) {
        Summer(text)
    }
}

agent Shelf {
    main func(text) {
        text
    }
}
