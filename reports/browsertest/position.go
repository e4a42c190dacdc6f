package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// positionScript records, after the page's own script ran, the box of the
// first element matching the selector, relative to the top of the page
// (the first screen is 0..window height), in a data attribute of <html>.
const positionScript = `<script>
window.addEventListener("load",function(){setTimeout(function(){
  var el=document.querySelector(%s),de=document.documentElement,out={found:false};
  if(el){var r=el.getBoundingClientRect();out={found:true,top:r.top+window.scrollY,bottom:r.bottom+window.scrollY,left:r.left,right:r.right,visible:el.checkVisibility?el.checkVisibility():true,text:(el.textContent||"").trim().slice(0,120)};}
  out.height=de.scrollHeight;
  de.setAttribute("data-position",JSON.stringify(out));
},0);});
</script>`

var positionAttr = regexp.MustCompile(`<html[^>]*\sdata-position="([^"]*)"`)

// Box is where an element lies on a rendered page, in CSS pixels from the
// top left of the page (not of the window), and the page's height.
type Box struct {
	Found   bool    `json:"found"`
	Top     float64 `json:"top"`
	Bottom  float64 `json:"bottom"`
	Left    float64 `json:"left"`
	Right   float64 `json:"right"`
	Visible bool    `json:"visible"`
	// Text is the start of the element's text.
	Text string `json:"text"`
	// PageHeight is the height of the whole page.
	PageHeight float64 `json:"height"`
}

// Position renders page in a window width × height CSS pixels and finds
// the first element matching the CSS selector: an element whose Top is
// below height is not on the first screen. Like Layout, it renders a
// copy of the page with a measuring script added.
func (b *Browser) Position(ctx context.Context, page string, width, height int, selector string) (Box, error) {
	src, err := os.ReadFile(page)
	if err != nil {
		return Box{}, err
	}
	i := strings.LastIndex(string(src), "</body>")
	if i < 0 {
		return Box{}, fmt.Errorf("%s has no </body> to put the measuring script before", page)
	}
	sel, _ := json.Marshal(selector)
	measured := string(src[:i]) + fmt.Sprintf(positionScript, sel) + string(src[i:])
	dir, err := os.MkdirTemp("", "mcpcheck-position-")
	if err != nil {
		return Box{}, err
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, filepath.Base(page))
	if err := os.WriteFile(copyPath, []byte(measured), 0o644); err != nil {
		return Box{}, err
	}
	out, err := b.run(ctx, copyPath, "--virtual-time-budget=5000", fmt.Sprintf("--window-size=%d,%d", width, height), "--dump-dom")
	if err != nil {
		return Box{}, err
	}
	m := positionAttr.FindSubmatch(out)
	if m == nil {
		return Box{}, fmt.Errorf("the measuring script did not run in %s (no data-position on <html>); does the page's Content-Security-Policy allow inline script?", page)
	}
	var box Box
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &box); err != nil {
		return Box{}, fmt.Errorf("the measuring script's result: %v", err)
	}
	return box, nil
}
