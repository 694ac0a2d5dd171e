package reader

import "strings"

// stockParents maps stock Unreal Engine 1 classes (Core, Engine, Fire and
// the UT99 game packages' common bases) to their parent class, by lower-case
// name. stockParentsUE2 overrides and adds the UE2 material and mesh classes.
var stockParents = map[string]string{
	// Core
	"field": "Object", "struct": "Field", "state": "Struct", "class": "State", "function": "Struct",
	"const": "Field", "enum": "Field", "property": "Field", "textbuffer": "Object", "package": "Object",
	"subsystem": "Object", "commandlet": "Object", "system": "Subsystem", "linker": "Object",
	// Engine resources
	"bitmap": "Object", "texture": "Bitmap", "palette": "Object", "font": "Object", "sound": "Object", "music": "Object",
	"primitive": "Object", "mesh": "Primitive", "lodmesh": "Mesh", "skeletalmesh": "LodMesh", "model": "Primitive",
	"levelbase": "Object", "level": "LevelBase", "polys": "Object", "scriptedtexture": "Texture", "shadowbitmap": "Texture",
	"animation": "Object", "meshanimation": "Object",
	// Fire
	"fractaltexture": "Texture", "firetexture": "FractalTexture", "watertexture": "FractalTexture",
	"wavetexture": "WaterTexture", "wettexture": "WaterTexture", "icetexture": "FractalTexture",
	// Actors
	"actor": "Object", "info": "Actor", "zoneinfo": "Info", "levelinfo": "ZoneInfo", "skyzoneinfo": "ZoneInfo",
	"warpzoneinfo": "ZoneInfo", "gameinfo": "Info", "mutator": "Info", "replicationinfo": "Info",
	"playerreplicationinfo": "ReplicationInfo", "gamereplicationinfo": "ReplicationInfo", "levelsummary": "Info",
	"light": "Actor", "triggerlight": "Light", "spotlight": "Light", "navigationpoint": "Actor",
	"playerstart": "NavigationPoint", "pathnode": "NavigationPoint", "inventoryspot": "NavigationPoint",
	"teleporter": "NavigationPoint", "liftcenter": "NavigationPoint", "liftexit": "NavigationPoint",
	"ambushpoint": "NavigationPoint", "butcherpoint": "NavigationPoint",
	"brush": "Actor", "mover": "Brush", "decoration": "Actor", "inventory": "Actor", "weapon": "Inventory",
	"pickup": "Inventory", "ammo": "Pickup", "pawn": "Actor", "playerpawn": "Pawn", "camera": "PlayerPawn",
	"scriptedpawn": "Pawn", "projectile": "Actor", "keypoint": "Actor", "ambientsound": "Keypoint",
	"triggers": "Actor", "trigger": "Triggers", "specialevent": "Triggers", "counter": "Triggers",
	"dispatcher": "Triggers", "effects": "Actor", "hud": "Actor", "decal": "Actor", "spawnnotify": "Actor",
	"zonetrigger": "Trigger",
}

var stockParentsUE2 = map[string]string{
	"material": "Object", "renderedmaterial": "Material", "bitmapmaterial": "RenderedMaterial",
	"texture": "BitmapMaterial", "cubemap": "Texture", "shader": "RenderedMaterial", "combiner": "RenderedMaterial",
	"constantmaterial": "RenderedMaterial", "constantcolor": "ConstantMaterial", "fadecolor": "ConstantMaterial",
	"modifier": "Material", "finalblend": "Modifier", "texmodifier": "Modifier", "texpanner": "TexModifier",
	"texrotator": "TexModifier", "texscaler": "TexModifier", "texoscillator": "TexModifier",
	"texcoordsource": "TexModifier", "texenvmap": "TexModifier", "texmatrix": "TexModifier",
	"materialswitch": "Modifier", "materialsequence": "Modifier", "opacitymodifier": "Modifier",
	"scriptedtexture": "BitmapMaterial", "shadowbitmapmaterial": "BitmapMaterial",
	"staticmesh": "Primitive", "vertmesh": "LodMesh", "skeletalmesh": "LodMesh", "convexvolume": "Primitive",
	"staticmeshactor": "Actor", "terraininfo": "Info", "emitter": "Actor", "particleemitter": "Object",
	"spriteemitter": "ParticleEmitter", "meshemitter": "ParticleEmitter",
}

// StockParent returns the parent of a stock engine class (Core, Engine,
// Fire and the common actor bases; UE2's material classes when ue2 is
// set), or "" when unrmod does not know the class. Object has no parent.
func StockParent(class string, ue2 bool) string {
	lc := strings.ToLower(class)
	if ue2 {
		if s, ok := stockParentsUE2[lc]; ok {
			return s
		}
	}
	return stockParents[lc]
}

// ClassLineage returns the class of export i and every parent unrmod can
// name, most derived first: classes defined in the package follow their
// super class in the export table; an imported class continues with its
// stock parents (StockParent). A class export's lineage is Class's.
func (p *Package) ClassLineage(i int) []string {
	chain := p.ClassChain(i)
	ue2 := p.Header.Version.File >= VerUE2
	seen := map[string]bool{}
	for _, c := range chain {
		seen[strings.ToLower(c)] = true
	}
	for depth := 0; depth < 64; depth++ {
		parent := StockParent(chain[len(chain)-1], ue2)
		if parent == "" || seen[strings.ToLower(parent)] {
			break
		}
		seen[strings.ToLower(parent)] = true
		chain = append(chain, parent)
	}
	return chain
}

// IsA reports whether export i is of class class or, as far as
// ClassLineage knows, of a subclass of it (names compare
// case-insensitively).
func (p *Package) IsA(i int, class string) bool {
	for _, c := range p.ClassLineage(i) {
		if strings.EqualFold(c, class) {
			return true
		}
	}
	return false
}
