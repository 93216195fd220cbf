agent {
}
