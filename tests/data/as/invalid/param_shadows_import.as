import file Notes from "./notes.md"

main agent A {
    main func(input) {
    }
    func f(Notes) {
    }
}
