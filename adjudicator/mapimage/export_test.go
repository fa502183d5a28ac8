package mapimage

// ForgetPictures empties the cache of pictures drawn, so that a benchmark draws each time.
func ForgetPictures() { pictures.clear() }
