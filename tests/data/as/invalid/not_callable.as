import file F from "./f.md"

main agent A {
    main func(input) {
        F(input)
        input(1)
        helper(1)(2)
        "text"()
    }
    func helper(x) {
    }
}
