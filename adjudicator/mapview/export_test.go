package mapview

// RefRender is refRender for the external tests.
var RefRender = refRender

// RefWrap is refWrap for the external tests, Wrap its counterpart.
var RefWrap = refWrap

// WrapWidth is wrap for the external tests.
var WrapWidth = wrap
