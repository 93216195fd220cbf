import agent Reader from "./reader.as"

main agent Desk {
    main func(input) {
        Reader(input)
    }
}
