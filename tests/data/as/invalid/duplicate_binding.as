import tool Search from "file://x"

main agent A {
    main func(input) {
    }
    func Search(q) {
    }
}
