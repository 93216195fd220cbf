import agent Shelf from "./reader.as"

agent Summer {
    main func(text) {
        Shelf(text)
    }
}
